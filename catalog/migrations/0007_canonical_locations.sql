-- Table locations become canonical warehouse locations (file:///abs/path),
-- the only form the warehouse package parses back and the form containment
-- is compared in. Earlier versions stored clean absolute paths ("/w/b/t")
-- and file:// URIs as given, with file://localhost/ accepted by Lance
-- register. Anything else already stored (a relative or odd form) is left
-- as it is: the warehouse refuses to parse it, so such a table can be read
-- as an entry, forgotten or deregistered, and is never deleted as data.
UPDATE tables SET location = 'file://' || location
    WHERE location LIKE '/%' AND location NOT LIKE '//%';
UPDATE tables SET location = 'file:///' || substr(location, 18)
    WHERE location LIKE 'file://localhost/%' AND substr(location, 18, 1) <> '/';
UPDATE tables SET location = rtrim(location, '/')
    WHERE location LIKE 'file:///%_/' ;
UPDATE tables SET metadata_location = 'file://' || metadata_location
    WHERE metadata_location LIKE '/%' AND metadata_location NOT LIKE '//%';
