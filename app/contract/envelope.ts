/**
 * The messages that carry the contract over a wire (Electron IPC, WebSocket): a call, its
 * reply, an event. `serve` is the one place a call is checked and run: unknown method or bad
 * arguments never reach a handler, and a handler's result is checked before it leaves, so
 * both ends can trust what they receive. Errors cross as `{code, message}` only.
 */
import { AppError, toAppError } from '../errors.js';
import {
  EVENTS,
  METHODS,
  isEventName,
  isMethod,
  type ContractHandlers,
  type EventName,
  type EventPayload,
  type Method,
  type Result,
} from './methods.js';

export interface WireError {
  code: string;
  message: string;
  /** The form field the error is about, when there is one. */
  field?: string;
}

/** A reply: the result, or an error that crossed the boundary. */
export type Reply<T = unknown> = { ok: true; result: T } | { ok: false; error: WireError };

/** WebSocket frames (IPC carries the same call/reply without the id). */
export type CallFrame = { type: 'call'; id: number; method: string; args: unknown };
export type ReplyFrame = { type: 'reply'; id: number } & Reply;
export type EventFrame = { type: 'event'; event: string; payload: unknown };

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Checks a call's method and arguments; throws AppError('BadRequest'). */
export function checkCall(method: unknown, args: unknown): { method: Method; args: unknown } {
  if (!isMethod(method)) throw new AppError('BadRequest', `unknown method ${JSON.stringify(String(method)).slice(0, 80)}`);
  const parsed = METHODS[method].args.parse(args ?? {}, 'args');
  return { method, args: parsed };
}

/** Runs one call against the handlers, checking arguments and result. Never throws. */
export async function serve(handlers: ContractHandlers, method: unknown, args: unknown): Promise<Reply> {
  let call: { method: Method; args: unknown };
  try {
    call = checkCall(method, args);
  } catch (e) {
    return { ok: false, error: wireError(e) };
  }
  try {
    const fn = handlers[call.method] as (a: unknown) => Promise<unknown>;
    const result = await fn(call.args);
    try {
      return { ok: true, result: METHODS[call.method].result.parse(result, 'result') };
    } catch (e) {
      return {
        ok: false,
        error: { code: 'Internal', message: `the engine produced a bad ${call.method} result: ${toAppError(e).message}` },
      };
    }
  } catch (e) {
    return { ok: false, error: wireError(e) };
  }
}

/** The boundary form of any error. */
export function wireError(e: unknown): WireError {
  const err = toAppError(e);
  return err.field === undefined ? { code: err.code, message: err.message } : { code: err.code, message: err.message, field: err.field };
}

/** Checks a reply on arrival: the envelope, then the result against the method's schema. */
export function checkReply<M extends Method>(method: M, raw: unknown): Result<M> {
  if (!isObject(raw) || typeof raw['ok'] !== 'boolean') throw new AppError('BadResponse', 'malformed reply');
  if (raw['ok'] === false) {
    const err = raw['error'];
    const code = isObject(err) && typeof err['code'] === 'string' ? err['code'] : 'Internal';
    const message = isObject(err) && typeof err['message'] === 'string' ? err['message'] : 'unknown error';
    const field = isObject(err) && typeof err['field'] === 'string' ? err['field'] : undefined;
    throw new RemoteError(code, message, field);
  }
  return METHODS[method].result.parse(raw['result'], 'result') as Result<M>;
}

/** Checks an event on arrival. */
export function checkEvent(event: unknown, payload: unknown): { event: EventName; payload: EventPayload<EventName> } {
  if (!isEventName(event)) throw new AppError('BadResponse', 'unknown event');
  return { event, payload: EVENTS[event].parse(payload, 'payload') };
}

/** Checks an incoming WebSocket call frame (before `checkCall` looks at method/args). */
export function checkCallFrame(raw: unknown): CallFrame {
  if (!isObject(raw) || raw['type'] !== 'call') throw new AppError('BadRequest', 'expected a call frame');
  const id = raw['id'];
  if (typeof id !== 'number' || !Number.isSafeInteger(id) || id < 0)
    throw new AppError('BadRequest', 'call id must be a non-negative integer');
  return { type: 'call', id, method: String(raw['method']), args: raw['args'] };
}

/** An error reported by the other side, with its code. */
export class RemoteError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly field?: string,
  ) {
    super(message);
    this.name = 'RemoteError';
  }
}
