-- Staging layer: cleaned, renamed copies of the raw TPC-DS tables (database tpcds).
-- Spark SQL. Every target is a CTAS, so its columns are known only from this file.

CREATE DATABASE IF NOT EXISTS stg;

-- name: stg_sales
CREATE TABLE stg.stg_sales USING parquet AS
SELECT 'store' AS channel, ss_sold_date_sk AS sold_date_sk, ss_customer_sk AS customer_sk,
       ss_item_sk AS item_sk, ss_quantity AS quantity, ss_net_paid AS net_paid
FROM tpcds.store_sales
WHERE ss_customer_sk IS NOT NULL
UNION ALL
SELECT 'web', ws_sold_date_sk, ws_bill_customer_sk, ws_item_sk, ws_quantity, ws_net_paid
FROM tpcds.web_sales
WHERE ws_bill_customer_sk IS NOT NULL
UNION ALL
SELECT 'catalog', cs_sold_date_sk, cs_bill_customer_sk, cs_item_sk, cs_quantity, cs_net_paid
FROM tpcds.catalog_sales
WHERE cs_bill_customer_sk IS NOT NULL;

CREATE TABLE stg.stg_returns USING parquet AS
SELECT 'store' AS channel, sr_returned_date_sk AS returned_date_sk, sr_customer_sk AS customer_sk,
       sr_item_sk AS item_sk, sr_return_amt AS return_amt
FROM tpcds.store_returns
UNION ALL
SELECT 'web', wr_returned_date_sk, wr_refunded_customer_sk, wr_item_sk, wr_return_amt
FROM tpcds.web_returns;

CREATE TABLE stg.stg_customer USING parquet AS
SELECT c_customer_sk AS customer_sk,
       c_customer_id AS customer_id,
       CONCAT(c_first_name, ' ', c_last_name) AS full_name,
       c_preferred_cust_flag AS preferred_flag,
       UPPER(c_birth_country) AS country
FROM tpcds.customer;

CREATE TABLE stg.stg_item USING parquet AS
SELECT i_item_sk AS item_sk, i_item_id AS item_id, i_category AS category, i_current_price AS current_price
FROM tpcds.item
WHERE i_rec_end_date IS NULL;

CREATE TABLE stg.stg_date USING parquet AS
SELECT d_date_sk AS date_sk, d_year AS sold_year, d_moy AS sold_month
FROM tpcds.date_dim;
