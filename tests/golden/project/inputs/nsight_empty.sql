-- An export whose copies table exists and is empty, and that has no kernels table.
CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY (start INTEGER, end INTEGER, deviceId INTEGER, streamId INTEGER,
  bytes INTEGER, copyKind INTEGER, srcKind INTEGER, dstKind INTEGER);
