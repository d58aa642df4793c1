-- database: analytics
-- statements: all
-- Trino over an Iceberg catalog: CTAS, MERGE, UPDATE, views, plain SELECT, INSERT VALUES (--statements all).
CREATE TABLE accounts (id BIGINT, owner VARCHAR, balance DECIMAL(12, 2), status VARCHAR);
CREATE TABLE ledger (account_id BIGINT, delta DECIMAL(12, 2), booked_at TIMESTAMP(6));
CREATE TABLE account_balance AS SELECT a.id, a.owner, a.balance + COALESCE(SUM(l.delta), 0) AS balance FROM accounts a LEFT JOIN ledger l ON l.account_id = a.id GROUP BY a.id, a.owner, a.balance;
MERGE INTO accounts AS t USING (SELECT account_id, SUM(delta) AS d FROM ledger GROUP BY account_id) AS s ON t.id = s.account_id
WHEN MATCHED THEN UPDATE SET balance = t.balance + s.d
WHEN NOT MATCHED THEN INSERT (id, owner, balance, status) VALUES (s.account_id, 'unknown', s.d, 'new');
UPDATE accounts SET status = 'closed' WHERE balance = 0 AND id IN (SELECT account_id FROM ledger WHERE booked_at < TIMESTAMP '2020-01-01 00:00:00');
CREATE OR REPLACE VIEW rich AS SELECT owner, balance FROM accounts WHERE balance > 1000000;
SELECT owner, approx_percentile(balance, 0.5) AS median FROM rich GROUP BY owner;
INSERT INTO accounts (id, owner) VALUES (1, 'a'), (2, 'b');
INSERT INTO audit SELECT "status", count(*) AS "Count" FROM accounts GROUP BY "status" HAVING count(*) > 1 ORDER BY 2 DESC;
