-- A small Spark ETL over sales.orders and sales.customers (schema.yaml).

-- name: paid_orders
CREATE TABLE sales.paid_orders AS
SELECT o.order_id, o.customer_id, o.amount, o.order_date
FROM sales.orders o
WHERE o.status = 'PAID';

-- name: customer_revenue
CREATE TABLE sales.customer_revenue AS
SELECT c.customer_id,
       c.name AS customer_name,
       c.region,
       SUM(p.amount) AS revenue,
       COUNT(p.order_id) AS orders
FROM sales.paid_orders p
JOIN sales.customers c ON p.customer_id = c.customer_id
GROUP BY c.customer_id, c.name, c.region;

INSERT OVERWRITE TABLE sales.region_revenue
SELECT region,
       SUM(revenue) AS revenue,
       CASE WHEN SUM(revenue) > 10000 THEN 'core' ELSE 'other' END AS tier
FROM sales.customer_revenue
GROUP BY region;
