// A page using window.hybrid as hybrid.d.ts declares it: `tsc -p runtime/types` compiles it in
// strict mode (runtime/test/dts.test.mjs). Each `@ts-expect-error` line is a misuse the
// declarations must refuse: if they grow too loose, tsc reports the directive as unused.
import type { Hybrid, HybridError, HybridInfo, DeviceInfo, ResumeEvent, ProxyFetchError, JSONValue } from '../../Sources/HybridBridge/Resources/hybrid';

export async function page(): Promise<void> {
  const api: Hybrid = window.hybrid;
  const same: Hybrid = hybrid;
  const ready: Hybrid = await api.ready;

  // Built-in modules are typed by their action tables.
  const info: HybridInfo = await api.call('hybrid', 'info');
  const device: DeviceInfo = await api.call('device', 'info', {});
  const platform: string = device.platform;
  const stored: JSONValue = await api.call('storage', 'get', { key: 'cart' });
  await api.call('storage', 'set', { key: 'cart', value: [1, 'two', { three: new Uint8Array(3) }] });
  // @ts-expect-error confirm answers a boolean
  const wrong: string = await api.call('ui', 'confirm', { message: 'ok?' });

  // Any other module through the generic overload, with options.
  const controller = new AbortController();
  const result = await api.call<{ total: number }, number>('cart', 'checkout', { items: [new Blob(['x'])] }, {
    timeout: 5000, signal: controller.signal, onProgress: (step: number) => void step, transport: 'url',
  });
  const total: number = result.total;
  // @ts-expect-error the only transport to force is 'url'
  await api.call('cart', 'checkout', {}, { transport: 'event' });
  // @ts-expect-error params are JSON values or bytes
  await api.call('cart', 'checkout', { when: () => 1 });

  try { await api.call('x', 'y'); } catch (e) {
    const error = e as HybridError;
    const code: string = error.code;
    const name: 'HybridError' = error.name;
    const data: JSONValue | undefined = error.data;
    void [code, name, data];
  }

  const off: () => void = api.on('network', (state) => void state);
  api.on('resume', (event: ResumeEvent) => { const persisted: boolean = event.persisted; void persisted; });
  api.off('network');
  off();
  api.onSnapshot(() => 'data:image/png;base64,');
  api.onSnapshot(async () => 'data:image/png;base64,');
  api.onSnapshot(null);
  // @ts-expect-error a capture returns a data URL
  api.onSnapshot(() => 42);

  const prefetched: Response | null = await api.prefetched('feed', { withCookies: true });
  // @ts-expect-error the key is a string
  await api.prefetched(7);

  const version: string = api.version;
  const runtimeVersion: string = api.runtimeVersion;
  const modules: readonly string[] = api.modules;
  const engine: string | undefined = api.capabilities.engine as string | undefined;
  const transport: 'event' | 'url' = api.transport;
  const pending: number = api.pendingCount;
  // @ts-expect-error read-only
  api.pendingCount = 0;

  try { await fetch('/api'); } catch (e) {
    if (e instanceof TypeError && (e as ProxyFetchError).code === 'proxy_denied') return;
  }
  void [same, ready, info, platform, stored, wrong, total, prefetched, version, runtimeVersion, modules, engine, transport, pending];
}
