// Loads plugin.proto at run time (no generated JS to keep in step).
import grpc from '@grpc/grpc-js';
import protoLoader from '@grpc/proto-loader';
import { fileURLToPath } from 'node:url';

export const protoPath = process.env.FLOE_PLUGIN_PROTO || fileURLToPath(new URL('../../../proto/floe/plugin/v1/plugin.proto', import.meta.url));

let cached = null;

/** The floe.plugin.v1 package: PluginService client constructor and types. */
export function pluginPackage() {
  if (!cached) {
    const def = protoLoader.loadSync(protoPath, { keepCase: true, longs: Number, enums: String, defaults: true, oneofs: true });
    cached = grpc.loadPackageDefinition(def).floe.plugin.v1;
  }
  return cached;
}

/** The WorkerMessage field that carries a Descriptor (renamed once upstream). */
export function descriptorField() {
  const names = pluginPackage().WorkerMessage.type.field.map((f) => f.name);
  return names.includes('job_descriptor') ? 'job_descriptor' : 'descriptor';
}
