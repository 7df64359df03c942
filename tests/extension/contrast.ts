/**
 * Colour checks on rendered pages (the webview test and the real VS Code
 * test): the contrast of each status pill's text on what is behind it, and
 * the hue it reads as. Computed styles only: the colours the theme really gave.
 */
import type { Frame, Page } from 'playwright-core'

/** For each status pill: the contrast of its text on what is behind it (its own wash over the page), and the text's hue. */
export async function measureStatusContrast(page: Pick<Page | Frame, 'evaluate'>): Promise<Record<string, { ratio: number; hue: number }>> {
  return page.evaluate(() => {
    const probe = document.createElement('canvas').getContext('2d')!
    /** Any CSS colour as [r, g, b, a] (0..255, alpha 0..1), through a canvas. */
    const rgba = (css: string): [number, number, number, number] => {
      probe.clearRect(0, 0, 1, 1)
      probe.fillStyle = '#000'
      probe.fillStyle = css
      probe.fillRect(0, 0, 1, 1)
      const [r, g, b, a] = probe.getImageData(0, 0, 1, 1).data
      return [r!, g!, b!, a! / 255]
    }
    const over = (top: number[], bottom: number[]) => [0, 1, 2].map((i) => top[i]! * top[3]! + bottom[i]! * (1 - top[3]!))
    const luminance = (rgb: number[]) => {
      const [r, g, b] = rgb.map((value) => {
        const c = value / 255
        return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4
      })
      return 0.2126 * r! + 0.7152 * g! + 0.0722 * b!
    }
    const hue = ([r, g, b]: number[]) => {
      const max = Math.max(r!, g!, b!)
      const min = Math.min(r!, g!, b!)
      if (max === min) return 0
      const d = max - min
      const h = max === r ? ((g! - b!) / d) % 6 : max === g ? (b! - r!) / d + 2 : (r! - g!) / d + 4
      return (h * 60 + 360) % 360
    }
    const page = rgba(getComputedStyle(document.body).backgroundColor)
    const out: Record<string, { ratio: number; hue: number }> = {}
    for (const status of ['2xx', '3xx', '4xx', '5xx']) {
      const pill = document.querySelector(`.status-${status}`)!
      const style = getComputedStyle(pill)
      const text = over(rgba(style.color), page)
      const behind = over(rgba(style.backgroundColor), page)
      const [light, dark] = [luminance(text), luminance(behind)].sort((a, b) => b - a)
      out[status] = { ratio: (light! + 0.05) / (dark! + 0.05), hue: hue(text) }
    }
    return out
  })
}

/** Hue ranges: what reads as green, blue, amber and red. */
export function hueName(hue: number): string {
  if (hue < 20 || hue >= 340) return 'red'
  if (hue < 55) return 'amber'
  if (hue < 170) return 'green'
  if (hue < 260) return 'blue'
  return 'other'
}

/** [r, g, b] of a computed `rgb()`/`rgba()` colour. */
export function rgbOf(css: string): [number, number, number] {
  const [r, g, b] = (css.match(/[\d.]+/g) ?? []).slice(0, 3).map(Number) as [number, number, number]
  return [r, g, b]
}

/** WCAG contrast ratio of two computed colours. */
export function contrastOf(a: string, b: string): number {
  const luminance = (css: string) => {
    const [r, g, b] = rgbOf(css).map((value) => {
      const c = value / 255
      return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4
    })
    return 0.2126 * r! + 0.7152 * g! + 0.0722 * b!
  }
  const [light, dark] = [luminance(a), luminance(b)].sort((x, y) => y - x)
  return (light! + 0.05) / (dark! + 0.05)
}

/** Hue (0..360) and HSL lightness (0..1) of a computed colour. */
export function hueAndLightness(css: string): { hue: number; lightness: number } {
  const [r, g, b] = rgbOf(css)
  const max = Math.max(r, g, b)
  const min = Math.min(r, g, b)
  const lightness = (max + min) / 2 / 255
  if (max === min) return { hue: 0, lightness }
  const d = max - min
  const h = max === r ? ((g - b) / d) % 6 : max === g ? (b - r) / d + 2 : (r - g) / d + 4
  return { hue: (h * 60 + 360) % 360, lightness }
}
