-- database: shop
-- UNNEST of an array of structs: i.sku is a field of an element of orders.items, as with Spark's explode.
CREATE TABLE shop.orders (order_id INT64, items ARRAY<STRUCT<sku STRING, qty INT64>>);
INSERT INTO shop.report SELECT o.order_id, i.sku, i.qty FROM shop.orders o, UNNEST(o.items) AS i;
