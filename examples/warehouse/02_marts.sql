-- Marts layer: facts, a dimension, a summary and a view, all over the staging tables of 01_staging.sql.

CREATE DATABASE IF NOT EXISTS mart;

CREATE TABLE mart.fct_sales (
  sold_year INT,
  channel STRING,
  customer_sk BIGINT,
  item_sk BIGINT,
  category STRING,
  quantity INT,
  net_paid DECIMAL(7,2)
) USING parquet;

-- name: fct_sales
INSERT OVERWRITE TABLE mart.fct_sales
WITH s AS (SELECT * FROM stg.stg_sales),
     d AS (SELECT * FROM stg.stg_date),
     i AS (SELECT * FROM stg.stg_item)
SELECT d.sold_year, s.channel, s.customer_sk, s.item_sk, i.category, s.quantity, s.net_paid
FROM s
JOIN d ON s.sold_date_sk = d.date_sk
JOIN i ON s.item_sk = i.item_sk;

CREATE TABLE mart.fct_returns USING parquet AS
WITH r AS (SELECT * FROM stg.stg_returns)
SELECT d.sold_year AS return_year, r.channel, r.customer_sk, r.item_sk, r.return_amt
FROM r
JOIN stg.stg_date d ON r.returned_date_sk = d.date_sk;

CREATE TABLE mart.dim_customer USING parquet AS
WITH c AS (SELECT * FROM stg.stg_customer)
SELECT customer_sk, customer_id, full_name, country,
       CASE WHEN preferred_flag = 'Y' THEN 'preferred' ELSE 'standard' END AS segment
FROM c;

-- A session-scoped helper, used by the next statement only.
CREATE OR REPLACE TEMPORARY VIEW returns_by_channel AS
SELECT channel, return_year, SUM(return_amt) AS returns_value
FROM mart.fct_returns
GROUP BY channel, return_year;

CREATE TABLE mart.channel_summary USING parquet AS
WITH f AS (SELECT * FROM mart.fct_sales)
SELECT f.channel, f.sold_year, SUM(f.net_paid) AS net_revenue, MAX(rc.returns_value) AS returns_value
FROM f
LEFT JOIN returns_by_channel rc ON rc.channel = f.channel AND rc.return_year = f.sold_year
GROUP BY f.channel, f.sold_year;

CREATE OR REPLACE VIEW mart.v_customer_360 AS
WITH sales AS (
  SELECT customer_sk, sold_year, SUM(net_paid) AS gross
  FROM mart.fct_sales
  GROUP BY customer_sk, sold_year
), rets AS (
  SELECT customer_sk, return_year, SUM(return_amt) AS returned
  FROM mart.fct_returns
  GROUP BY customer_sk, return_year
)
SELECT c.customer_sk, c.customer_id, c.full_name, c.segment, s.sold_year,
       s.gross - COALESCE(r.returned, 0) AS yearly_revenue,
       RANK() OVER (PARTITION BY s.sold_year ORDER BY s.gross - COALESCE(r.returned, 0) DESC) AS revenue_rank
FROM mart.dim_customer c
JOIN sales s ON c.customer_sk = s.customer_sk
LEFT JOIN rets r ON r.customer_sk = s.customer_sk AND r.return_year = s.sold_year;
