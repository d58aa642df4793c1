-- database: shop
CREATE TABLE shop.orders (order_id INT64, customer STRUCT<id INT64, name STRING>, items ARRAY<STRUCT<sku STRING, qty INT64>>, created_at TIMESTAMP);
INSERT INTO shop.report SELECT order_id, customer.name, TIMESTAMP_TRUNC(created_at, DAY) FROM shop.orders;
INSERT INTO `my-project.shop.report` SELECT order_id, ARRAY_LENGTH(items), SAFE_DIVIDE(order_id, 2) FROM `my-project.shop.orders`;
