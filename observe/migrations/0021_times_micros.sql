-- One time encoding across floe (persist.Micros): observed_at was Unix
-- milliseconds and is now Unix microseconds.
UPDATE observations SET observed_at = observed_at * 1000;
