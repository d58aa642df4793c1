-- database: silver
-- statements: all
-- Spark / Delta MERGE, UPDATE, DELETE, views and plain SELECTs with --statements all.
CREATE TABLE customers (id BIGINT, name STRING, email STRING, tier STRING, updated_at TIMESTAMP) USING delta;
CREATE TABLE customer_updates (id BIGINT, name STRING, email STRING, op STRING, ts TIMESTAMP) USING delta;
MERGE INTO customers t
USING (SELECT * FROM customer_updates WHERE op <> 'noop') s
ON t.id = s.id
WHEN MATCHED AND s.op = 'delete' THEN DELETE
WHEN MATCHED THEN UPDATE SET t.name = s.name, t.email = lower(s.email), t.updated_at = s.ts
WHEN NOT MATCHED THEN INSERT (id, name, email, tier, updated_at) VALUES (s.id, s.name, s.email, 'bronze', current_timestamp());
UPDATE customers SET tier = CASE WHEN updated_at > '2024-01-01' THEN 'gold' ELSE tier END WHERE email LIKE '%@corp.com';
DELETE FROM customers WHERE tier IS NULL;
CREATE VIEW gold_customers AS SELECT id, upper(name) AS name FROM customers WHERE tier = 'gold';
SELECT g.name, count(*) AS n FROM gold_customers g GROUP BY g.name;
INSERT INTO customers VALUES (1, 'a', 'b', 'c', current_timestamp());
INSERT INTO customers SELECT id, name, email, 'x', ts FROM customer_updates;
