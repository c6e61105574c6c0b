/** Small HTTP helpers for the service's integration tests (fetch with a bearer token). */
export interface Res {
  status: number;
  headers: Headers;
  body: unknown;
  text: string;
}

export function client(baseUrl: string, token: string | undefined, prefix = '/sdk/v2') {
  const call = async (
    method: string,
    path: string,
    opts: { body?: unknown; raw?: string; headers?: Record<string, string> } = {},
  ): Promise<Res> => {
    const headers: Record<string, string> = { ...opts.headers };
    if (token !== undefined) headers['Authorization'] = `Bearer ${token}`;
    let body: string | undefined;
    if (opts.raw !== undefined) body = opts.raw;
    else if (opts.body !== undefined) {
      body = JSON.stringify(opts.body);
      headers['Content-Type'] ??= 'application/json';
    }
    // a kept-alive connection the service closed as this request left (a slow, loaded machine
    // lets the keep-alive timers cross): a GET is asked again once, on a fresh connection
    const r = await fetch(baseUrl + prefix + path, { method, headers, body }).catch((e: unknown) => {
      if (method !== 'GET' || (e as { cause?: { code?: string } }).cause?.code !== 'UND_ERR_SOCKET') throw e;
      return fetch(baseUrl + prefix + path, { method, headers, body });
    });
    const text = await r.text();
    let parsed: unknown = undefined;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = undefined;
    }
    return { status: r.status, headers: r.headers, body: parsed, text };
  };
  return {
    call,
    get: (path: string, headers?: Record<string, string>) => call('GET', path, { headers }),
    patch: (id: string, body: unknown, headers?: Record<string, string>) =>
      call('POST', `/files/${encodeURIComponent(id)}/patch`, { body, headers }),
    del: (id: string, headers?: Record<string, string>) => call('DELETE', `/files/${encodeURIComponent(id)}`, { headers }),
    list: (ids: string, extra = '') => call('GET', `/filesSearch/parents?ids=${encodeURIComponent(ids)}${extra}`),
    search: (q: string, extra = '') => call('GET', `/filesSearch/text?q=${encodeURIComponent(q)}${extra}`),
    pan: (parentID: string, name: string) =>
      call('GET', `/filesSearch/parentAndName?parentID=${encodeURIComponent(parentID)}&name=${encodeURIComponent(name)}`),
  };
}
