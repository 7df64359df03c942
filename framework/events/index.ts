/**
 * Events and their listeners. An event is an instance of a plain class
 * (`new OrderShipped(order)`); a listener names the class it listens to.
 * `emit(event)` runs every listener of its class, in the order they were
 * registered, and waits for them; `emit(event, c)` inside a request also
 * records the event and its listeners in the request's trace. A listener marked `queued` is handed to the
 * listener queue when one is installed (`useListenerQueue`), and runs in
 * process like the others until then.
 *
 * The registry is one per process (shared by every copy of svc loaded in it,
 * hence the registered symbol): an app registers its listeners once at start
 * (`svc` loads `app/listeners/index.ts`), and any code then emits.
 *
 * @example
 * export class OrderShipped { constructor(readonly orderId: number) {} }
 * export default defineListener(OrderShipped, { name: 'send-shipment-mail', handle: (event) => mail(event.orderId) })
 * listen(sendShipmentMail)
 * await emit(new OrderShipped(42), c)
 */

import { servicesOrStandIns, type JobServices } from '../queue/job.ts'
import type { ListenerTiming, RequestRecorder } from '../trace/recorder.ts'

/**
 * What a listener gets beside the event: the app's services (database,
 * queue, mailer, config), every one there, so that `{ db }` is used as it is
 * (as a job's). In process, those the host installed (`useListenerServices`;
 * the `svc` CLI installs the app's); in a queue worker, the worker's. One the
 * host did not give is a stand-in that throws, naming it, when used.
 */
export type ListenerContext = Required<JobServices>

/** The class of an event: any class; its instances are the events. */
export type EventClass<E extends object = object> = abstract new (...args: never[]) => E

export interface Listener<E extends object = object> {
  /** Stable and unique in the app (a queue stores it to find the listener again): the file's name by convention. */
  readonly name: string
  readonly event: EventClass<E>
  /** Run later by a queue worker instead of during `emit` (in process while no queue is installed). */
  readonly queued: boolean
  handle(event: E, context: ListenerContext): void | Promise<void>
}

export interface ListenerOptions<E extends object> {
  name: string
  queued?: boolean
  handle(event: E, context: ListenerContext): void | Promise<void>
}

/** Where `emit` hands queued listeners, once a queue is installed. */
export interface ListenerQueue {
  /** Resolves once the listener is handed over; a queue that ran it at once (the sync driver) says how that went. */
  push(listener: Listener, event: object): Promise<void | ListenerHandOff>
}

/** What a queue that ran a queued listener at once (the sync driver) tells `emit`: its failure is the trace's, not the request's. */
export interface ListenerHandOff {
  /** The message it failed for good with (after its attempts); undefined when it did not fail. */
  failed: string | undefined
}

interface Registry {
  listeners: WeakMap<EventClass, Listener[]>
  /** By name: what a queue worker finds a queued listener by. */
  byName: Map<string, Listener>
  queue: ListenerQueue | undefined
  services: JobServices
}

const REGISTRY = Symbol.for('svc.events')

function registry(): Registry {
  const global = globalThis as { [REGISTRY]?: Registry }
  return (global[REGISTRY] ??= { listeners: new WeakMap(), byName: new Map(), queue: undefined, services: {} })
}

export function defineListener<E extends object>(event: EventClass<E>, options: ListenerOptions<E>): Listener<E> {
  if (options.name.trim() === '') throw new Error('A listener needs a name')
  return { name: options.name, event, queued: options.queued ?? false, handle: options.handle }
}

/** Registers listeners; registering one twice changes nothing. */
export function listen(...listeners: Listener[]): void {
  const { listeners: byEvent, byName } = registry()
  for (const listener of listeners) {
    const list = byEvent.get(listener.event) ?? []
    if (!list.includes(listener)) byEvent.set(listener.event, [...list, listener])
    byName.set(listener.name, listener)
  }
}

/** Removes listeners (tests). */
export function forget(...listeners: Listener[]): void {
  const { listeners: byEvent, byName } = registry()
  for (const listener of listeners) {
    const list = byEvent.get(listener.event)
    if (list !== undefined) byEvent.set(listener.event, list.filter((each) => each !== listener))
    if (byName.get(listener.name) === listener) byName.delete(listener.name)
  }
}

/** The registered listener of this name (a queue worker's lookup). */
export function listenerNamed(name: string): Listener | undefined {
  return registry().byName.get(name)
}

/** The listeners of this event's class, in the order they run. */
export function listenersOf(event: object): readonly Listener[] {
  return registry().listeners.get(event.constructor as EventClass) ?? []
}

/**
 * The request an event is emitted in: its context `c` (any object with the
 * request's trace recorder). svc has no implicit request scope (an async
 * context would cost every request, on every runtime), so a handler passes `c`.
 */
export interface EmitScope {
  readonly recorder: RequestRecorder | undefined
}

/**
 * Runs the event's listeners one after another and waits for them; a
 * listener that throws stops the rest and the error reaches the caller (as
 * any other error of the request would). Given the request's context `c`,
 * the event and each listener it ran (or queued), with its time and its
 * error, are recorded in the request's trace.
 *
 * @example
 * await emit(new TaskCreated(task.id), c)
 */
export async function emit(event: object, c?: EmitScope): Promise<void> {
  const { queue, services } = registry()
  const context = servicesOrStandIns(services, (name) => `No ${name} was installed for listeners (useListenerServices({ ${name} }); the svc CLI installs the app's)`)
  const recorder = c?.recorder
  if (recorder?.recordEvent !== undefined) return emitRecorded(event, recorder, queue, context)
  for (const listener of listenersOf(event)) {
    if (listener.queued && queue !== undefined) await queue.push(listener, event)
    else await listener.handle(event, context)
  }
}

/** `emit` within a traced request: the same runs, each timed, reported to the recorder once done or failed. */
async function emitRecorded(event: object, recorder: RequestRecorder, queue: ListenerQueue | undefined, context: ListenerContext): Promise<void> {
  const startedAt = performance.now()
  const ran: ListenerTiming[] = []
  try {
    for (const listener of listenersOf(event)) {
      const queued = listener.queued && queue !== undefined
      const began = performance.now()
      // A queue that ran the listener at once and saw it fail (sync) does not throw, as a real queue would not: the request goes on, the trace says it failed.
      let failedInQueue: string | undefined
      try {
        if (queued) failedInQueue = (await queue.push(listener, event))?.failed
        else await listener.handle(event, context)
      } catch (error) {
        ran.push({ name: listener.name, queued, duration_ms: queued ? null : performance.now() - began, error: errorMessage(error) })
        throw error
      }
      ran.push({ name: listener.name, queued, duration_ms: queued ? null : performance.now() - began, error: failedInQueue ?? null })
    }
  } finally {
    recorder.recordEvent!({ name: eventName(event), startedAt, duration_ms: performance.now() - startedAt, listeners: ran })
  }
}

function eventName(event: object): string {
  const name = (event.constructor as { name?: unknown } | undefined)?.name
  return typeof name === 'string' && name !== '' ? name : 'Object'
}

function errorMessage(error: unknown): string {
  if (error instanceof Error) return error.message === '' ? error.name : error.message
  return String(error)
}

/** Installs the services listeners run with in process (the `svc` CLI installs the app's). */
export function useListenerServices(services: JobServices): void {
  registry().services = services
}

/** Installs (or, with undefined, removes) the queue that queued listeners are handed to. */
export function useListenerQueue(queue: ListenerQueue | undefined): void {
  registry().queue = queue
}

/**
 * Undoes what a host installed once it closes (the `svc` CLI, an app loaded in process): its listeners are
 * forgotten, and its queue and services removed if they are still the installed ones (a host loaded since
 * keeps its own). Left installed, a later app in the same process (a test file after another) handed its
 * events to a closed database's queue.
 */
export function releaseListeners(host: { listeners: readonly Listener[]; queue?: ListenerQueue | undefined; services?: JobServices }): void {
  forget(...host.listeners)
  const current = registry()
  if (host.queue !== undefined && current.queue === host.queue) current.queue = undefined
  if (host.services !== undefined && current.services === host.services) current.services = {}
}
