// A card's title cut in the middle, so the part that tells it from its neighbours always shows.
import "./MiddleCut.css";
import { useLayoutEffect, useRef } from "react";
import { middleCut } from "../shared/sessionLabels";

/**
 * Text cut in the middle when it does not fit: the head ends in an ellipsis, the tail (what tells
 * it from its neighbours) always shows. Whole when it fits; whole in the DOM either way.
 */
export function MiddleCut({ text, tail }: { text: string; tail?: string }) {
  const cut = middleCut(text, tail);
  const root = useRef<HTMLSpanElement>(null);
  useLayoutEffect(() => {
    const el = root.current;
    if (!el) return;
    const measure = () => placeTail(el, cut.tail);
    measure();
    if (typeof ResizeObserver === "undefined") return;
    const observer = new ResizeObserver(measure);
    observer.observe(el);
    return () => observer.disconnect();
  }, [text, tail, cut.tail]);
  return (
    <span ref={root} className="middle-cut">
      {/* Wraps at its spaces into one line's height: what shows is whole words. */}
      <span className="middle-cut-head">{cut.head}</span>
      <span className="middle-cut-tail">{cut.tail}</span>
    </span>
  );
}

/**
 * Lays out a {@link MiddleCut}: the head keeps room for the tail, and the tail (after an ellipsis
 * when the head gave way) sits right after the head's last whole word on its one line — not at
 * the far edge of the card, with a gap before it. A tail too long to sit after the head's first
 * word gives way too, a whole word at a time from its front, so no word is ever cut by the edge.
 */
function placeTail(root: HTMLElement, fullTail: string) {
  const head = root.firstElementChild as HTMLElement | null;
  const tail = root.lastElementChild as HTMLElement | null;
  if (!head || !tail || head === tail) return;
  // The tail's own text node (React's): shortened in place, given back whole before each layout.
  const tailText = tail.firstChild;
  if (tailText && tailText.nodeType === Node.TEXT_NODE) tailText.nodeValue = fullTail;
  let words = fullTail;
  for (;;) {
    const left = layOut(root, head, tail);
    const fits = left == null || left + tail.offsetWidth <= root.offsetWidth + 0.5;
    const shorter = words.replace(/^\s*\S+(?=\s)/, "");
    if (fits || shorter === words || !tailText) return;
    words = shorter;
    tailText.nodeValue = words;
  }
}

/** Places the tail after the head's last shown word; its left edge in the root's own pixels. */
function layOut(root: HTMLElement, head: HTMLElement, tail: HTMLElement): number | null {
  head.style.paddingRight = `${tail.offsetWidth}px`;
  const clipped = head.scrollHeight > head.clientHeight + 1;
  root.classList.toggle("is-cut", clipped);
  const words = head.firstChild;
  if (!words || typeof document.createRange !== "function") return null;
  const range = document.createRange();
  range.selectNodeContents(words);
  const line = range.getClientRects?.()[0];
  const box = root.getBoundingClientRect();
  if (!line || box.width === 0) return null;
  // Canvas zoom scales what the screen shows; offsets are in the element's own pixels.
  const scale = root.offsetWidth / box.width;
  const left = Math.max(0, (line.right - box.left) * scale);
  tail.style.left = `${left}px`;
  return left;
}
