-- database: public
-- Issue 19: SELECT … INTO is a CTAS; FULL JOIN USING reads both sides; casts are named by their column.
CREATE TABLE a (k INT, x INT);
CREATE TABLE b (k INT, y INT);
SELECT k, a.x::text, b.y INTO ab FROM a FULL JOIN b USING (k);
INSERT INTO out SELECT user_id FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY user_id ORDER BY ts DESC) AS rk FROM events) e WHERE rk = 1;
