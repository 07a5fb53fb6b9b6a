// The demo tour: each step exercises one feature through the page API and shows its result.
'use strict';

const results = [];

function show(feature, ok, figure) {
  results.push({ feature, ok, figure });
  const row = document.createElement('tr');
  row.innerHTML = `<td></td><td class="${ok ? 'ok' : 'fail'}">${ok ? 'ok' : 'FAILED'}</td><td></td>`;
  row.cells[0].textContent = feature;
  row.cells[2].textContent = figure;
  document.querySelector('#results tbody').appendChild(row);
}

async function step(feature, body) {
  const started = performance.now();
  try {
    const figure = await body();
    show(feature, true, figure ?? `${(performance.now() - started).toFixed(1)} ms`);
  } catch (error) {
    show(feature, false, `${error.code || error.name}: ${error.message}`);
  }
}

function expect(condition, message) {
  if (!condition) throw new Error(message);
}

async function tour() {
  await hybrid.ready;

  await step('bridge: device.info', async () => {
    const info = await hybrid.call('device', 'info');
    expect(info.platform, 'no platform');
    return `${info.platform} · ${info.appName}`;
  });

  await step('bridge: round trips', async () => {
    const n = 200;
    const started = performance.now();
    for (let i = 0; i < n; i++) await hybrid.call('hybrid', 'info');
    return `${((performance.now() - started) / n).toFixed(3)} ms per call`;
  });

  await step('bridge: typed errors', async () => {
    try {
      await hybrid.call('nope', 'missing');
    } catch (error) {
      expect(error.code === 'unknown_module', `code ${error.code}`);
      return `rejected with ${error.code}`;
    }
    throw new Error('an unknown module resolved');
  });

  await step('storage: set / get', async () => {
    const value = { when: Date.now(), text: 'héllo' };
    await hybrid.call('storage', 'set', { key: 'demo', value: JSON.stringify(value) });
    const back = await hybrid.call('storage', 'get', { key: 'demo' });
    expect(back && JSON.parse(back.value ?? back).text === 'héllo', 'value changed on the way');
    return 'persisted per origin';
  });

  await step('local page via custom scheme', async () => {
    expect(location.protocol === 'hybrid-app:', location.protocol);
    const css = await fetch('demo.css');
    expect(css.ok, `status ${css.status}`);
    return `${location.origin} (secure: ${window.isSecureContext})`;
  });

  await step('canvas', async () => {
    const canvas = document.getElementById('canvas');
    const g = canvas.getContext('2d');
    const gradient = g.createLinearGradient(0, 0, 360, 0);
    gradient.addColorStop(0, '#2750d6');
    gradient.addColorStop(1, '#7b3fe4');
    g.fillStyle = gradient;
    g.fillRect(0, 0, 360, 120);
    g.fillStyle = 'white';
    g.font = 'bold 22px DejaVu Sans, sans-serif';
    g.fillText('drawn by the page', 70, 68);
    return `${canvas.toDataURL().length} bytes as PNG data URL`;
  });

  const ok = results.every((r) => r.ok);
  document.getElementById('footer').textContent =
    `${results.filter((r) => r.ok).length} of ${results.length} features ok · ${navigator.userAgent}`;
  await hybrid.call('test', 'done', { ok, details: { features: results } });
}

tour().catch((error) => {
  document.getElementById('footer').textContent = `tour failed: ${error}`;
  if (window.hybrid) hybrid.call('test', 'done', { ok: false, details: { error: String(error) } });
});
