/**
 * A tiny DOM builder. Text always goes through text nodes (never `innerHTML`), so data from the API cannot inject
 * markup; attribute values are set with `setAttribute`, and `href`s are built by the pages from route helpers.
 */
export type Child = Node | string | number | null | undefined | false | ReadonlyArray<Child>

export type Attrs = Readonly<Record<string, string | number | boolean | undefined | EventListener>>

const append = (parent: Node, child: Child): void => {
  if (child === null || child === undefined || child === false) return
  if (Array.isArray(child)) {
    for (const c of child as ReadonlyArray<Child>) append(parent, c)
    return
  }
  parent.appendChild(
    typeof child === "string" || typeof child === "number"
      ? document.createTextNode(String(child))
      : (child as Node)
  )
}

/** An element with attributes (`on…` keys become listeners, `true` a bare attribute) and children. */
export const h = <K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Attrs = {},
  ...children: ReadonlyArray<Child>
): HTMLElementTagNameMap[K] => {
  const el = document.createElement(tag)
  for (const [key, value] of Object.entries(attrs)) {
    if (value === undefined || value === false) continue
    if (typeof value === "function") el.addEventListener(key.slice(2).toLowerCase(), value)
    else el.setAttribute(key, value === true ? "" : String(value))
  }
  append(el, children)
  return el
}

/** Replaces an element's children. */
export const render = (target: Element, ...children: ReadonlyArray<Child>): void => {
  target.replaceChildren()
  append(target, children)
}

/** A link to a hash route. */
export const link = (href: string, ...children: ReadonlyArray<Child>): HTMLAnchorElement =>
  h("a", { href }, ...children)
