-- A small Nsight Systems export: copies of every CUPTI copy kind gpmc prices and some it does not, and two
-- kernels; timestamps in ns from an epoch far from zero, as Nsight writes them.
CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY (start INTEGER NOT NULL, end INTEGER NOT NULL, deviceId INTEGER NOT NULL,
  contextId INTEGER NOT NULL, streamId INTEGER NOT NULL, correlationId INTEGER, globalPid INTEGER,
  bytes INTEGER NOT NULL, copyKind INTEGER NOT NULL, deprecatedSrcId INTEGER, srcKind INTEGER, dstKind INTEGER,
  srcDeviceId INTEGER, srcContextId INTEGER, dstDeviceId INTEGER, dstContextId INTEGER, migrationCause INTEGER,
  graphNodeId INTEGER);
CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER NOT NULL, end INTEGER NOT NULL, deviceId INTEGER NOT NULL,
  contextId INTEGER NOT NULL, streamId INTEGER NOT NULL, correlationId INTEGER, globalPid INTEGER,
  demangledName INTEGER, shortName INTEGER NOT NULL, gridX INTEGER, gridY INTEGER, gridZ INTEGER,
  blockX INTEGER, blockY INTEGER, blockZ INTEGER);
INSERT INTO StringIds VALUES (1, 'jacobi_kernel'), (2, 'void jacobi_kernel<double>(double*, double const*, int)'),
  (3, 'reduce');
-- start, end, deviceId, contextId, streamId, correlationId, globalPid, bytes, copyKind, deprecatedSrcId, srcKind,
-- dstKind, srcDeviceId, srcContextId, dstDeviceId, dstContextId, migrationCause, graphNodeId
INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES
  (1700000000000001000, 1700000000000013000, 0, 1, 7, 10, 99, 8, 1, 0, 2, 3, 0, 1, 0, 1, 0, 0),
  (1700000000001000000, 1700000000001450000, 0, 1, 7, 11, 99, 4194304, 1, 0, 2, 3, 0, 1, 0, 1, 0, 0),
  (1700000000004000000, 1700000000004900000, 0, 1, 13, 12, 99, 4194304, 2, 0, 3, 1, 0, 1, 0, 1, 0, 0),
  (1700000000004950000, 1700000000005380000, 0, 1, 13, 13, 99, 4194304, 1, 0, 1, 3, 0, 1, 0, 1, 0, 0),
  (1700000000005000000, 1700000000005003000, 0, 1, 7, 14, 99, 1048576, 8, 0, 3, 3, 0, 1, 0, 1, 0, 0),
  (1700000000006000000, 1700000000006040000, 0, 1, 7, 15, 99, 1048576, 10, 0, 3, 3, 0, 1, 1, 2, 0, 0),
  (1700000000006100000, 1700000000006110000, 0, 1, 7, 16, 99, 65536, 3, 0, 2, 4, 0, 1, 0, 1, 0, 0),
  (1700000000006200000, 1700000000006220000, 0, 1, 7, 17, 99, 65536, 1, 0, 5, 3, 0, 1, 0, 1, 0, 0),
  (1700000000006300000, 1700000000006301000, 0, 1, 7, 18, 99, 64, 42, 0, 3, 3, 0, 1, 0, 1, 0, 0);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES
  (1700000000002000000, 1700000000003500000, 0, 1, 7, 20, 99, 2, 1, 512, 512, 1, 32, 8, 1),
  (1700000000007000000, 1700000000007500000, 0, 1, 13, 21, 99, 3, 3, 64, 1, 1, 256, 1, 1);
