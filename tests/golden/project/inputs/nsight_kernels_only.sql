-- An export with kernels and no copies (Nsight creates tables lazily: no copies table at all).
CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER NOT NULL, end INTEGER NOT NULL, deviceId INTEGER NOT NULL,
  contextId INTEGER NOT NULL, streamId INTEGER NOT NULL, shortName INTEGER NOT NULL);
INSERT INTO StringIds VALUES (1, 'k');
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (1000, 501000, 0, 1, 7, 1);
