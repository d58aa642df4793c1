-- database: silver
-- Spark SQL ETL: temp views, CTAS USING delta, explode, structs, lateral subqueries, windows.
CREATE TABLE bronze.raw_orders (order_id BIGINT, customer STRUCT<id: BIGINT, name: STRING, address: STRUCT<city: STRING, zip: STRING>>, items ARRAY<STRUCT<sku: STRING, qty: INT, price: DOUBLE>>, order_ts TIMESTAMP, channel STRING) USING delta;
CREATE TABLE bronze.raw_payments (order_id BIGINT, amount DOUBLE, method STRING, paid_at TIMESTAMP) USING delta;
CREATE OR REPLACE TEMPORARY VIEW v_orders AS
SELECT order_id, customer.id AS customer_id, customer.address.city AS city, items, CAST(order_ts AS DATE) AS order_date
FROM bronze.raw_orders WHERE channel <> 'test';
CREATE OR REPLACE TEMP VIEW v_items AS
SELECT o.order_id, o.customer_id, o.order_date, item.sku, item.qty * item.price AS line_total
FROM v_orders o LATERAL VIEW explode(o.items) t AS item;
CREATE TABLE order_lines USING delta PARTITIONED BY (order_date) AS
SELECT order_id, sku, line_total, order_date FROM v_items;
INSERT OVERWRITE TABLE silver.customer_daily
SELECT customer_id, order_date, SUM(line_total) AS revenue, COUNT(DISTINCT order_id) AS orders
FROM v_items GROUP BY customer_id, order_date;
INSERT INTO silver.customer_daily
SELECT o.customer_id, o.order_date, p.amount, 1
FROM v_orders o JOIN bronze.raw_payments p ON o.order_id = p.order_id AND p.method IN ('card', 'wallet');
INSERT INTO silver.city_rank
SELECT city, revenue, DENSE_RANK() OVER (ORDER BY revenue DESC) AS rk
FROM (SELECT city, SUM(size(items)) AS revenue FROM v_orders GROUP BY city);
INSERT INTO silver.order_flags
SELECT order_id,
       CASE channel WHEN 'web' THEN 1 WHEN 'app' THEN 2 ELSE 0 END AS channel_code,
       NVL(customer.name, 'unknown') AS cname,
       transform(items, x -> x.qty) AS qtys,
       element_at(items, 1).sku AS first_sku
FROM bronze.raw_orders;
INSERT INTO silver.order_items_flat
SELECT r.order_id, i.sku, i.qty
FROM bronze.raw_orders r, LATERAL (SELECT explode(r.items) AS i_struct) e, LATERAL (SELECT e.i_struct.sku AS sku, e.i_struct.qty AS qty) i;
INSERT INTO silver.payments_latest
SELECT order_id, amount, method FROM (
  SELECT *, ROW_NUMBER() OVER (PARTITION BY order_id ORDER BY paid_at DESC) AS rn FROM bronze.raw_payments
) WHERE rn = 1;
INSERT INTO silver.payments_latest
SELECT order_id, amount, method FROM bronze.raw_payments WHERE paid_at > (SELECT MAX(paid_at) - INTERVAL 1 DAY FROM bronze.raw_payments);
CACHE TABLE cached_pay AS SELECT * FROM bronze.raw_payments;
DROP VIEW v_items;
INSERT INTO silver.after_drop SELECT sku FROM v_items;
