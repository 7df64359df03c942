/**
 * Events reach their listeners in process (`emit`), in registration order;
 * a queued listener goes to the listener queue once one is installed (the
 * queue itself comes with the background-work issue), and runs in process
 * until then. The registry is shared by every copy of svc in the process.
 */
import { afterEach, describe, expect, expectTypeOf, it } from 'vitest'
import { defineListener, emit, forget, listen, listenersOf, useListenerQueue, useListenerServices, type AppConfig, type Database, type Listener, type ListenerContext, type ListenerQueue, type Mailer, type Queue } from 'svc'

class OrderShipped {
  constructor(readonly id: number) {}
}
class OrderCancelled {
  constructor(readonly id: number) {}
}

const registered: Listener[] = []
function register(...listeners: Listener[]) {
  registered.push(...listeners)
  listen(...listeners)
}
afterEach(() => {
  forget(...registered.splice(0))
  useListenerQueue(undefined)
})

describe('emit', () => {
  it('runs every listener of the event class, in order, and waits for each', async () => {
    const seen: string[] = []
    register(
      defineListener(OrderShipped, {
        name: 'slow',
        async handle(event) {
          await new Promise((resolve) => setTimeout(resolve, 5))
          seen.push(`slow ${event.id}`)
        },
      }),
      defineListener(OrderShipped, { name: 'fast', handle: (event) => void seen.push(`fast ${event.id}`) }),
      defineListener(OrderCancelled, { name: 'other', handle: () => void seen.push('cancelled') }),
    )
    await emit(new OrderShipped(7))
    expect(seen).toEqual(['slow 7', 'fast 7'])
    await emit({ unrelated: true })
    expect(seen).toEqual(['slow 7', 'fast 7'])
  })

  it("hands every listener the app's services, typed as there: { db } is used as it is (docs/events.md)", async () => {
    expectTypeOf<ListenerContext>().toEqualTypeOf<{ readonly db: Database; readonly queue: Queue; readonly mailer: Mailer; readonly config: AppConfig }>()
    const db = { first: async () => ({ title: 'Lamp' }) } as unknown as Database
    const seen: unknown[] = []
    register(defineListener(OrderShipped, { name: 'reads', handle: async (event, { db }) => void seen.push(await db.first('select title from orders where id = ?', [event.id])) }))
    useListenerServices({ db })
    try {
      await emit(new OrderShipped(3))
    } finally {
      useListenerServices({})
    }
    expect(seen).toEqual([{ title: 'Lamp' }])
  })

  it('a service the host did not install fails where it is used, naming it (not "cannot read properties of undefined")', async () => {
    register(defineListener(OrderShipped, { name: 'mails', handle: async (_event, { mailer }) => void (await mailer.send({ to: 'a@example.com', subject: 'Shipped', text: '' })) }))
    await expect(emit(new OrderShipped(4))).rejects.toThrow(
      "No mailer was installed for listeners (useListenerServices({ mailer }); the svc CLI installs the app's), so mailer.send cannot be used here",
    )
  })

  it('registering a listener twice runs it once; forget removes it', async () => {
    let runs = 0
    const listener = defineListener(OrderShipped, { name: 'count', handle: () => void runs++ })
    register(listener, listener)
    listen(listener)
    await emit(new OrderShipped(1))
    expect(runs).toBe(1)
    forget(listener)
    await emit(new OrderShipped(1))
    expect(runs).toBe(1)
  })

  it('a listener that throws stops the others and the error reaches the emitter', async () => {
    const seen: string[] = []
    register(
      defineListener(OrderShipped, { name: 'fails', handle: () => { throw new Error('mail server down') } }),
      defineListener(OrderShipped, { name: 'after', handle: () => void seen.push('after') }),
    )
    await expect(emit(new OrderShipped(1))).rejects.toThrow('mail server down')
    expect(seen).toEqual([])
  })

  it('a queued listener runs in process without a queue, and is pushed to the queue once one is installed', async () => {
    const handled: number[] = []
    const pushed: Array<[string, unknown]> = []
    const queued = defineListener(OrderShipped, { name: 'queued-mail', queued: true, handle: (event) => void handled.push(event.id) })
    const inline = defineListener(OrderShipped, { name: 'inline', handle: (event) => void handled.push(-event.id) })
    register(queued, inline)
    expect(queued.queued).toBe(true)
    expect(inline.queued).toBe(false)

    await emit(new OrderShipped(1))
    expect(handled).toEqual([1, -1])

    const queue: ListenerQueue = { push: async (listener, event) => void pushed.push([listener.name, event]) }
    useListenerQueue(queue)
    await emit(new OrderShipped(2))
    expect(handled).toEqual([1, -1, -2])
    expect(pushed).toEqual([['queued-mail', new OrderShipped(2)]])
  })

  it('keeps one registry per process: another copy of svc sees the same listeners', async () => {
    const listener = defineListener(OrderShipped, { name: 'shared', handle: () => {} })
    register(listener)
    const registry = (globalThis as Record<symbol, { listeners: WeakMap<object, Listener[]> }>)[Symbol.for('svc.events')]!
    expect(registry.listeners.get(OrderShipped)).toContain(listener)
    expect(listenersOf(new OrderShipped(1))).toEqual([listener])
  })

  it('refuses a listener without a name (a queue finds listeners by name)', () => {
    expect(() => defineListener(OrderShipped, { name: ' ', handle: () => {} })).toThrow(/needs a name/)
  })
})
