-- database: Sales
-- Case and quoting: MySQL table names are case-sensitive, column names are not; unicode names.
CREATE TABLE `Orders` (`OrderId` INT, `Amount` DECIMAL(10,2), `客户` VARCHAR(20), `key` INT, `from` DATE);
CREATE TABLE orders (order_id INT, amount DECIMAL(10,2));
INSERT INTO report SELECT `orderid`, AMOUNT, `客户` AS `客户名`, `KEY`, `From` FROM `Orders`;
INSERT INTO report SELECT Order_ID, amount FROM orders;
INSERT INTO report SELECT o.`OrderId` AS `Order Id`, o.`amount` AS `amount-usd` FROM Orders o;
INSERT INTO `Sales`.`report` SELECT a.`from`, b.amount FROM `Sales`.`Orders` a JOIN sales.orders b ON a.`key` = b.order_id;
INSERT INTO report SELECT `OrderId` FROM ORDERS;
