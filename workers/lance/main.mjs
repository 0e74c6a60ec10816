// floe's Lance worker: `node workers/lance/main.mjs` (or `npm run worker`).
// Env: FLOE_GRPC (127.0.0.1:9401), FLOE_WORKER_TOKEN, FLOE_WORKER_ID,
// FLOE_DETECT_SLOTS (2), FLOE_EXECUTE_SLOTS (1), FLOE_GRPC_TLS_CA/CERT/KEY.

import { log } from './lib/log.mjs';
import { configFromEnv, Worker, WORKER_VERSION } from './lib/session.mjs';

process.env.LANCE_INCLUDE_VECTOR_CENTROIDS ??= 'false';
const cfg = configFromEnv();
if (!cfg.token) log.warn('FLOE_WORKER_TOKEN is empty: the console will refuse the connection (create one with `floe worker-token create`)');
const worker = new Worker(cfg);
for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => worker.stop(`received ${sig}`));
log.info('lance worker starting', { version: WORKER_VERSION, worker_id: cfg.workerId, console: cfg.grpcAddr, detect_slots: cfg.detectSlots, execute_slots: cfg.executeSlots });
await worker.run();
process.exit(0);
