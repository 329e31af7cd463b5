// What React Flow needs from a browser that jsdom does not have (per the xyflow testing guide).
import { NODE_HEIGHT, NODE_WIDTH } from "../board/geometry";

class ResizeObserverStub {
  private readonly callback: ResizeObserverCallback;
  constructor(callback: ResizeObserverCallback) {
    this.callback = callback;
  }
  observe(target: Element) {
    this.callback([{ target } as ResizeObserverEntry], this as unknown as ResizeObserver);
  }
  unobserve() {}
  disconnect() {}
}

class DOMMatrixReadOnlyStub {
  m22: number;
  constructor(transform?: string) {
    const scale = transform?.match(/scale\(([1-9.])\)/)?.[1];
    this.m22 = scale !== undefined ? Number(scale) : 1;
  }
}

export function installFlowStubs(): void {
  const g = globalThis as Record<string, unknown>;
  g.ResizeObserver ??= ResizeObserverStub;
  g.DOMMatrixReadOnly ??= DOMMatrixReadOnlyStub;
  // Nodes need a size to be rendered by React Flow.
  Object.defineProperties(HTMLElement.prototype, {
    offsetHeight: { configurable: true, get() { return parseFloat(this.style.height) || NODE_HEIGHT; } },
    offsetWidth: { configurable: true, get() { return parseFloat(this.style.width) || NODE_WIDTH; } },
  });
  (SVGElement.prototype as unknown as { getBBox: () => DOMRect }).getBBox = () =>
    ({ x: 0, y: 0, width: 0, height: 0 }) as DOMRect;
}
