-- A small dump for `datacenter import examples/notes.sql notes.db`.
BEGIN TRANSACTION;
CREATE TABLE notes(id INTEGER PRIMARY KEY, title TEXT NOT NULL, body TEXT, created REAL);
INSERT INTO notes VALUES(1,'Welcome','Imported from examples/notes.sql.',1767225600.0);
INSERT INTO notes VALUES(2,'Multi-line','line one
line two',1767312000.0);
INSERT INTO notes VALUES(3,'Quotes','It''s quoted; "double" too',1767398400.0);
CREATE INDEX notes_created ON notes(created);
COMMIT;
