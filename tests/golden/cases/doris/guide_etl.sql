-- database: lineage_demo
-- The Doris guide's shape: Doris DDL, VALUES inserts, a CTE insert with window, CASE, join, group, sort.
CREATE TABLE lineage_orders (
    order_id BIGINT,
    customer_id BIGINT,
    region VARCHAR(16),
    amount DECIMAL(10, 2),
    order_date DATE
) DUPLICATE KEY(order_id) DISTRIBUTED BY HASH(order_id) BUCKETS 1 PROPERTIES ("replication_num" = "1");
CREATE TABLE lineage_customers (
    customer_id BIGINT,
    customer_name VARCHAR(64),
    segment VARCHAR(16)
) DUPLICATE KEY(customer_id) DISTRIBUTED BY HASH(customer_id) BUCKETS 1 PROPERTIES ("replication_num" = "1");
CREATE TABLE lineage_summary (
    customer_id BIGINT,
    customer_name VARCHAR(64),
    region_label VARCHAR(32),
    total_amount DECIMAL(18, 2),
    order_cnt BIGINT,
    customer_seq BIGINT
) DUPLICATE KEY(customer_id) DISTRIBUTED BY HASH(customer_id) BUCKETS 1 PROPERTIES ("replication_num" = "1");
INSERT INTO lineage_orders VALUES (1, 100, 'east', 10.5, '2024-01-01'), (2, 101, 'west', 20.0, '2024-01-02');
INSERT INTO lineage_customers (customer_id, customer_name, segment) VALUES (100, 'Ann', 'retail');
INSERT INTO lineage_summary
WITH base AS (
    SELECT o.customer_id, c.customer_name, o.region, o.amount
    FROM lineage_orders o JOIN lineage_customers c ON o.customer_id = c.customer_id
    WHERE o.order_date >= '2024-01-01' AND c.segment <> 'test'
)
SELECT customer_id,
       customer_name,
       CASE WHEN UPPER(region) = 'EAST' THEN 'E' ELSE UPPER(region) END AS region_label,
       SUM(amount) AS total_amount,
       COUNT(*) AS order_cnt,
       ROW_NUMBER() OVER (ORDER BY customer_id) AS customer_seq
FROM base
GROUP BY customer_id, customer_name, region
HAVING SUM(amount) > 0
ORDER BY total_amount DESC
LIMIT 100;
INSERT INTO __internal_schema.audit SELECT * FROM lineage_orders;
