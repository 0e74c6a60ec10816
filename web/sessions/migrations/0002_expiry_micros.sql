-- One time encoding across floe (persist.Micros): expiry was Unix
-- nanoseconds and is now Unix microseconds.
UPDATE sessions SET expiry = expiry / 1000;
