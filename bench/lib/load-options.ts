import type { Scenario } from '../scenarios.ts'

/**
 * The load one window of a scenario gets: the run's connections unless the scenario sets its own (the
 * `json50` group), capped for a slow scenario, whose window is also stretched to its minimum.
 */
export function loadOptions(scenario: Scenario, runConnections: number, seconds: number): { connections: number; duration: number } {
  const connections = scenario.connections ?? runConnections
  if (scenario.slow === undefined) return { connections, duration: seconds }
  return { connections: Math.min(connections, scenario.slow.connections), duration: Math.max(seconds, scenario.slow.minDuration) }
}
