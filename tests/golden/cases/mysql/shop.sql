-- database: shop
-- MySQL ETL with DDL in the script: backticks, reserved words as names, case-insensitive columns.
CREATE TABLE `order` (`id` INT PRIMARY KEY, `select` VARCHAR(20), `Group` VARCHAR(20), `user` INT, `total` DECIMAL(10,2), `created` DATETIME);
CREATE TABLE users (id INT, Name VARCHAR(50), Email VARCHAR(100), city VARCHAR(30));
CREATE TABLE `order_report` (`user_name` VARCHAR(50), `group` VARCHAR(20), `amount` DECIMAL(12,2), `first_order` DATETIME, `tags` TEXT);
INSERT INTO `order_report`
SELECT u.NAME, o.`GROUP`, SUM(o.Total), MIN(o.created), GROUP_CONCAT(DISTINCT o.`select` ORDER BY o.`select` SEPARATOR ',')
FROM `order` AS o INNER JOIN users AS u ON u.ID = o.`user`
WHERE o.created >= DATE_SUB(NOW(), INTERVAL 30 DAY)
GROUP BY u.name, o.`group`;
INSERT IGNORE INTO order_report (user_name, amount)
SELECT IFNULL(u.name, 'anonymous'), o.total * 1.2 FROM `order` o LEFT OUTER JOIN users u USING (id);
REPLACE INTO order_report (user_name, `group`, amount)
SELECT name, city, 0 FROM users WHERE email LIKE '%@example.com';
CREATE TABLE user_city SELECT id AS user_id, UPPER(city) AS city, DATE_FORMAT(NOW(), '%Y-%m') AS ym FROM users;
INSERT INTO user_city SELECT user_id, city, ym FROM user_city WHERE city IS NOT NULL ORDER BY user_id LIMIT 10;
INSERT INTO order_report (user_name, amount)
SELECT t.n, t.s FROM (SELECT u.name AS n, SUM(o.total) AS s FROM users u, `order` o WHERE u.id = o.`user` GROUP BY u.name HAVING COUNT(*) > 2) AS t;
INSERT INTO order_report (user_name, `group`, amount, first_order)
SELECT name, 'vip', (SELECT MAX(total) FROM `order` WHERE `order`.`user` = users.id), NULL FROM users;
INSERT INTO order_report (user_name, amount)
SELECT name, SUM(total) FROM users NATURAL JOIN `order` GROUP BY name;
INSERT INTO order_report (user_name) SELECT CONCAT_WS(' ', name, email) FROM users
UNION
SELECT `select` FROM `order`;
INSERT INTO order_report (user_name, amount)
SELECT name, total FROM users JOIN `order` ON users.id = `order`.`user`
ON DUPLICATE KEY UPDATE amount = VALUES(amount);
DROP TABLE IF EXISTS tmp_x;
ALTER TABLE users ADD COLUMN phone VARCHAR(20);
INSERT INTO order_report (user_name, tags) SELECT name, SHA1(phone) FROM users;
ALTER TABLE users DROP COLUMN phone;
INSERT INTO order_report (user_name, tags) SELECT name, phone FROM users;
