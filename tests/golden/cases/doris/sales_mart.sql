-- database: dw
-- Doris reporting ETL over a schema file: aggregates, windows, conditionals, subqueries, masking.
INSERT INTO customer_summary
SELECT customer_id, SUM(price * quantity) AS gross_amount, COUNT(*) AS order_count
FROM orders WHERE region = 'CN' GROUP BY customer_id;

INSERT OVERWRITE TABLE daily_sales PARTITION (p20240101)
SELECT DATE(order_ts) AS dt, region, SUM(price * quantity), COUNT(DISTINCT order_id), AVG(CAST(price AS DOUBLE))
FROM orders
WHERE status IN ('PAID', 'SHIPPED') AND order_ts >= '2024-01-01'
GROUP BY 1, 2;

INSERT INTO daily_sales (dt, region, revenue)
SELECT CURRENT_DATE(), COALESCE(o.region, c.country, 'N/A'), IFNULL(SUM(o.price), 0)
FROM orders o LEFT JOIN customers c ON o.customer_id = c.customer_id AND c.segment = 'B2B'
GROUP BY COALESCE(o.region, c.country, 'N/A');

CREATE TABLE customer_pii_masked AS
SELECT customer_id, MD5(email) AS email_hash, SHA2(phone, 256) AS phone_hash, CONCAT(SUBSTR(phone, 1, 3), '****') AS phone_mask
FROM orders;

CREATE TABLE top_customers AS
SELECT c.name, t.total, RANK() OVER (PARTITION BY c.country ORDER BY t.total DESC) AS rnk
FROM (SELECT customer_id, SUM(price * quantity) AS total FROM orders GROUP BY customer_id) t
JOIN customers c ON c.customer_id = t.customer_id
WHERE t.total > (SELECT AVG(price * quantity) FROM orders);

INSERT INTO customer_summary
SELECT c.customer_id,
       (SELECT SUM(o.price) FROM orders o WHERE o.customer_id = c.customer_id) AS gross_amount,
       1 AS order_count
FROM customers c
WHERE EXISTS (SELECT 1 FROM orders o2 WHERE o2.customer_id = c.customer_id AND o2.status = 'PAID')
  AND c.customer_id NOT IN (SELECT customer_id FROM orders WHERE status = 'FRAUD');

INSERT INTO daily_sales
SELECT dt, region, revenue, orders, revenue / NULLIF(orders, 0)
FROM (
  SELECT DATE(order_ts) AS dt, region, SUM(price * quantity) AS revenue, COUNT(*) AS orders
  FROM orders GROUP BY DATE(order_ts), region
) x
ORDER BY dt;

INSERT INTO customer_summary
SELECT customer_id, LAG(price, 1) OVER (PARTITION BY customer_id ORDER BY order_ts), SUM(quantity) OVER (PARTITION BY region)
FROM orders
QUALIFY ROW_NUMBER() OVER (PARTITION BY customer_id ORDER BY order_ts DESC) = 1;

INSERT INTO customer_summary
SELECT p.product_id, IF(p.list_price > 100, p.list_price * 0.9, p.list_price), my_udf(p.brand, p.category)
FROM products p;

INSERT INTO customer_summary SELECT customer_id, price FROM orders;

INSERT INTO customer_summary (customer_id, no_such_col) SELECT customer_id, price FROM orders;

INSERT INTO customer_summary SELECT customer_id, amount_typo, 1 FROM orders;

INSERT INTO customer_summary SELECT x.customer_id, 0, 0 FROM orders o;
