-- Reports layer: read the marts of 02_marts.sql, through the view mart.v_customer_360.

CREATE DATABASE IF NOT EXISTS rpt;

CREATE TABLE rpt.top_customers USING parquet AS
SELECT customer_id, full_name, segment, sold_year, yearly_revenue
FROM mart.v_customer_360
WHERE revenue_rank <= 100;

CREATE TABLE rpt.customer_trend USING parquet AS
SELECT customer_id, sold_year, yearly_revenue,
       yearly_revenue - LAG(yearly_revenue) OVER (PARTITION BY customer_id ORDER BY sold_year) AS revenue_change
FROM mart.v_customer_360;

CREATE TABLE rpt.exec_summary (
  sold_year INT,
  top_customer_count BIGINT,
  top_customer_revenue DECIMAL(17,2),
  store_channel_revenue DECIMAL(17,2)
) USING parquet;

-- name: exec_summary
INSERT OVERWRITE TABLE rpt.exec_summary
WITH t AS (SELECT * FROM rpt.top_customers),
     top AS (
       SELECT sold_year, COUNT(*) AS customers, SUM(yearly_revenue) AS revenue
       FROM t
       GROUP BY sold_year
     ),
     c AS (SELECT * FROM mart.channel_summary WHERE channel = 'store')
SELECT top.sold_year, top.customers, top.revenue, c.net_revenue AS store_channel_revenue
FROM top
JOIN c ON top.sold_year = c.sold_year;
