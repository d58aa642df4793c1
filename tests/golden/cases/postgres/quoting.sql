-- database: public
-- PostgreSQL folds unquoted names to lower case; quoted names are exact.
CREATE TABLE "Sales"."Orders" ("OrderID" INT, "Amount" NUMERIC(10,2), amount_eur NUMERIC(10,2), "select" TEXT, "Straße" TEXT);
CREATE TABLE sales.orders (orderid INT, amount NUMERIC(10,2));
INSERT INTO rpt SELECT "OrderID", "Amount" * 2 AS "Doubled", "select", "Straße" FROM "Sales"."Orders";
INSERT INTO rpt SELECT OrderID, Amount FROM Sales.Orders;
INSERT INTO rpt SELECT o."OrderID", p.amount FROM "Sales"."Orders" o JOIN sales.orders p ON o."OrderID" = p.OrderId;
INSERT INTO rpt SELECT "orderid" FROM "Sales"."Orders";
INSERT INTO rpt SELECT x.a::int, x.b::text || '-' || x.c FROM (VALUES (1, 'a', 'b')) AS x(a, b, c);
INSERT INTO rpt SELECT id, generate_series(1, n) FROM counters;
