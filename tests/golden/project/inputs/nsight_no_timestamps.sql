-- A copy CUPTI could not time (start and end both 0).
CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY (start INTEGER, end INTEGER, deviceId INTEGER, streamId INTEGER, bytes INTEGER, copyKind INTEGER, srcKind INTEGER, dstKind INTEGER);
INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES (1000, 2000, 0, 7, 8, 1, 2, 3), (0, 0, 0, 7, 8, 1, 2, 3);
