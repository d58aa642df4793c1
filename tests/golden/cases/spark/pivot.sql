-- database: silver
-- PIVOT output columns are the implicit grouping columns and the pivot values (sku, d1, d2), never the pivoted inputs.
CREATE TABLE items (sku STRING, order_date STRING, line_total DOUBLE) USING delta;
CREATE TABLE sku_pivot (sku STRING, d1 DOUBLE, d2 DOUBLE) USING delta;
INSERT INTO sku_pivot
SELECT * FROM (SELECT sku, order_date, line_total FROM items)
PIVOT (SUM(line_total) FOR order_date IN ('2024-01-01' AS d1, '2024-01-02' AS d2));
