-- statements: all
-- database: shop
-- Issue 19: multi-table UPDATE, a procedure body, a VALUES row with a subquery.
CREATE TABLE orders (id INT, cust_id INT, region VARCHAR(10), amount INT);
CREATE TABLE customers (id INT, region VARCHAR(10), active INT);
UPDATE orders o JOIN customers c ON o.cust_id = c.id SET o.region = c.region WHERE c.active = 1;
UPDATE orders SET amount = 0;
CREATE PROCEDURE refresh_stats()
BEGIN
  DECLARE n INT DEFAULT 0;
  INSERT INTO stats (top_amount, n) VALUES ((SELECT MAX(amount) FROM orders), 1);
  IF n = 0 THEN
    DELETE FROM stats WHERE n IN (SELECT id FROM customers);
  END IF;
  PREPARE s FROM @sql;
END;
INSERT INTO report SELECT o.id, (SELECT c.region FROM customers c WHERE c.id = o.cust_id) AS region FROM (orders o);
