/**
 * The transport under every call: a bearer token obtained on first use and cached until shortly before it
 * expires (one token request in flight however many calls need it), refreshed once when the API answers
 * 401 invalid_token; retries on 429 and 503 (and lost connections) honouring Retry-After, with exponential
 * backoff and jitter; an automatic Idempotency-Key on POST, the same for every retry, so a retried create
 * writes once.
 */
import { OAuthError, ProblemError, type Problem } from './errors.ts'

export interface ClientOptions {
  /** Where the service is, e.g. `https://acme.procurement.example.com`. */
  baseUrl: string
  clientId: string
  clientSecret: string
  /** The API audience the service is configured with (`procurement-api` unless changed). */
  audience: string
  /** Retries of a request answered 429 or 503, or whose connection failed (default 3). */
  maxRetries?: number
  /** The first backoff in milliseconds when the answer names no Retry-After (default 250); doubles each time. */
  retryDelayMs?: number
  /** A `fetch` to use instead of the global one (tests, proxies, instrumentation). */
  fetch?: typeof fetch
}

export interface RequestOptions {
  query?: Record<string, string | number | boolean | undefined> | undefined
  body?: unknown
  headers?: Record<string, string> | undefined
  /** POST only: the Idempotency-Key to send (default: a new random key per call, reused by its retries). */
  idempotencyKey?: string | undefined
  /** A body sent as it is instead of `body` as JSON (a multipart upload). */
  rawBody?: RawBody | undefined
}

/**
 * A body sent as it is. `make` is called for each attempt; a body that can be made only once (a stream) is
 * `replayable: false`, and its call is then never retried (the caller sees the 429 or 503 and decides).
 */
export interface RawBody {
  make(): NonNullable<RequestInit['body']>
  replayable: boolean
  /** Omitted for FormData, whose type (with its boundary) fetch sets. */
  contentType?: string
}

export interface ApiResponse<T> {
  data: T
  status: number
  headers: Headers
}

/** Renew this long before the token's end, so no request carries one that expires on the way. */
const EXPIRY_MARGIN_MS = 60_000

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

export class Transport {
  readonly #options: Required<Pick<ClientOptions, 'maxRetries' | 'retryDelayMs'>> & ClientOptions
  readonly #fetch: typeof fetch
  #token: Promise<{ value: string; expiresAt: number }> | undefined

  constructor(options: ClientOptions) {
    this.#options = { maxRetries: 3, retryDelayMs: 250, ...options, baseUrl: options.baseUrl.replace(/\/+$/, '') }
    this.#fetch = options.fetch ?? globalThis.fetch.bind(globalThis)
  }

  /** The cached access token, or a new one (one request for every caller waiting at the same moment). */
  async accessToken(): Promise<string> {
    const cached = this.#token
    if (cached !== undefined) {
      try {
        const token = await cached
        if (token.expiresAt - EXPIRY_MARGIN_MS > Date.now()) return token.value
      } catch {
        // A failed request is not cached: ask again below.
      }
      if (this.#token !== cached) return this.accessToken()
    }
    const fresh = this.#requestToken()
    this.#token = fresh
    fresh.catch(() => {
      if (this.#token === fresh) this.#token = undefined
    })
    return (await fresh).value
  }

  /** Forgets the cached token (the next call obtains a new one). */
  dropToken(): void {
    this.#token = undefined
  }

  async #requestToken(): Promise<{ value: string; expiresAt: number }> {
    const { clientId, clientSecret, audience } = this.#options
    const body = JSON.stringify({
      client_id: clientId,
      client_secret: clientSecret,
      audience,
      grant_type: 'client_credentials',
    })
    const response = await this.#withRetries('POST', () =>
      this.#fetch(`${this.#options.baseUrl}/oauth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
      }),
    )
    const payload = (await response.json().catch(() => ({}))) as {
      access_token?: string
      expires_in?: number
      error?: string
      error_description?: string
    }
    if (!response.ok || payload.access_token === undefined) {
      throw new OAuthError(
        response.status,
        payload.error ?? 'server_error',
        payload.error_description ?? response.statusText,
      )
    }
    return { value: payload.access_token, expiresAt: Date.now() + (payload.expires_in ?? 0) * 1000 }
  }

  /** Sends until the answer is final: retries 429/503 and failed connections, at most `maxRetries` times. */
  async #withRetries(
    method: string,
    send: () => Promise<Response>,
    maxRetries = this.#options.maxRetries,
  ): Promise<Response> {
    for (let attempt = 0; ; attempt++) {
      let response: Response | undefined
      try {
        response = await send()
      } catch (error) {
        // A connection that failed may have delivered the request; only retry what is safe to repeat.
        if (attempt >= maxRetries || method === 'PATCH') throw error
      }
      if (response !== undefined && ![429, 503].includes(response.status)) return response
      if (response !== undefined && attempt >= maxRetries) return response
      await response?.body?.cancel()
      await sleep(this.#delay(attempt, response?.headers.get('retry-after') ?? null))
    }
  }

  /** Retry-After when given (seconds or an HTTP date), else exponential backoff; with jitter either way. */
  #delay(attempt: number, retryAfter: string | null): number {
    const jitter = 0.5 + Math.random() / 2
    if (retryAfter !== null) {
      const seconds = Number(retryAfter)
      const ms = Number.isFinite(seconds) ? seconds * 1000 : Date.parse(retryAfter) - Date.now()
      if (Number.isFinite(ms)) return Math.max(0, ms) + jitter * 100
    }
    return this.#options.retryDelayMs * 2 ** attempt * jitter
  }

  /** One API call: JSON in and out, problem documents thrown as ProblemError. */
  async request<T>(method: string, path: string, options: RequestOptions = {}): Promise<ApiResponse<T>> {
    const response = await this.#exchange(method, path, options, 'application/json')
    const text = await response.text()
    const payload: unknown = text === '' ? undefined : JSON.parse(text)
    return { data: payload as T, status: response.status, headers: response.headers }
  }

  /**
   * One API call whose answer is a document, not JSON (an order's PDF): its bytes and content type, with the
   * same token, retries and errors (a problem document is still thrown as ProblemError).
   */
  async requestBytes(
    method: string,
    path: string,
    options: RequestOptions = {},
    accept = '*/*',
  ): Promise<ApiResponse<Uint8Array> & { contentType: string }> {
    const response = await this.#exchange(method, path, options, accept)
    const data = new Uint8Array(await response.arrayBuffer())
    return {
      data,
      status: response.status,
      headers: response.headers,
      contentType: response.headers.get('content-type') ?? '',
    }
  }

  /**
   * One API call whose answer is streamed (an attachment's download): the response, its body not yet read,
   * with the same token, retries and errors.
   */
  requestStream(method: string, path: string, options: RequestOptions = {}, accept = '*/*'): Promise<Response> {
    return this.#exchange(method, path, options, accept)
  }

  /** Sends the call (a new token once on 401 invalid_token); an answer that is not 2xx is thrown. */
  async #exchange(method: string, path: string, options: RequestOptions, accept: string): Promise<Response> {
    const url = new URL(`${this.#options.baseUrl}${path}`)
    for (const [name, value] of Object.entries(options.query ?? {}))
      if (value !== undefined) url.searchParams.set(name, String(value))
    const idempotencyKey = method === 'POST' ? (options.idempotencyKey ?? crypto.randomUUID()) : undefined
    const raw = options.rawBody
    const contentType =
      raw !== undefined ? raw.contentType : options.body === undefined ? undefined : 'application/json'
    // A streamed body goes out as it is read (`duplex: 'half'`, which fetch requires for a stream).
    const body = (): RequestInit =>
      raw !== undefined
        ? ({ body: raw.make(), duplex: 'half' } as RequestInit)
        : options.body === undefined
          ? {}
          : { body: JSON.stringify(options.body) }
    const once = raw !== undefined && !raw.replayable
    for (let refreshed = false; ; refreshed = true) {
      const token = await this.accessToken()
      const response = await this.#withRetries(
        method,
        () =>
          this.#fetch(url, {
            method,
            headers: {
              authorization: `Bearer ${token}`,
              'x-service-client': 'api',
              accept,
              ...(contentType === undefined ? {} : { 'content-type': contentType }),
              ...(idempotencyKey === undefined ? {} : { 'idempotency-key': idempotencyKey }),
              ...options.headers,
            },
            ...body(),
          }),
        once ? 0 : this.#options.maxRetries,
      )
      if (
        response.status === 401 &&
        !refreshed &&
        !once &&
        /invalid_token/.test(response.headers.get('www-authenticate') ?? '')
      ) {
        // The token was revoked or its application's secret rotated: get a new one, once.
        await response.body?.cancel()
        this.dropToken()
        continue
      }
      if (response.ok) return response
      const text = await response.text()
      let problem: Problem | undefined
      try {
        problem = text === '' ? undefined : (JSON.parse(text) as Problem)
      } catch {
        problem = undefined
      }
      throw new ProblemError(
        problem?.status !== undefined
          ? problem
          : {
              type: '/problems/internal',
              title: response.statusText,
              status: response.status,
              detail: text || response.statusText,
            },
      )
    }
  }
}
