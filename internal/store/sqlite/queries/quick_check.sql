-- The structural checks of integrity_check without cross-checking every
-- index entry, so it stays fast on a big file; at most 20 problems.
PRAGMA quick_check(20)
