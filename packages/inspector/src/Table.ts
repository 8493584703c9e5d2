import { type Child, h, render } from "./Dom.js"

/** A column: its header, the value it sorts by, and how a cell shows. */
export interface Column<A> {
  readonly label: string
  readonly sort?: (row: A) => number | string
  readonly cell: (row: A) => Child
  /** Right-aligned (numbers). */
  readonly numeric?: boolean
}

/**
 * A table whose headers sort it (click again to reverse). Each cell carries its column's label (`data-label`), which
 * the narrow-screen style shows when a row becomes a stacked card.
 */
export const sortableTable = <A>(
  columns: ReadonlyArray<Column<A>>,
  rows: ReadonlyArray<A>,
  options: { readonly className?: string; readonly empty?: string; readonly rowClass?: (row: A) => string } = {}
): HTMLElement => {
  const wrap = h("div", { class: "table-wrap" })
  let sortBy = -1
  let descending = false
  const draw = () => {
    const column = columns[sortBy]
    const sorted = column?.sort === undefined ? rows : [...rows].sort((x, y) => {
      const a = column.sort!(x)
      const b = column.sort!(y)
      const order = a < b ? -1 : a > b ? 1 : 0
      return descending ? -order : order
    })
    const head = h(
      "tr",
      {},
      columns.map((c, i) =>
        h(
          "th",
          {
            class: [c.numeric ? "num" : "", c.sort ? "sortable" : ""].join(" ").trim() || undefined,
            "aria-sort": i === sortBy ? (descending ? "descending" : "ascending") : undefined,
            onclick: c.sort === undefined ? undefined : () => {
              descending = sortBy === i ? !descending : false
              sortBy = i
              draw()
            }
          },
          c.label,
          i === sortBy ? (descending ? " ▼" : " ▲") : ""
        )
      )
    )
    const body = sorted.length === 0
      ? h("tr", {}, h("td", { colspan: columns.length, class: "empty" }, options.empty ?? "nothing yet"))
      : sorted.map((row) =>
        h(
          "tr",
          { class: options.rowClass?.(row) },
          columns.map((c) => h("td", { class: c.numeric ? "num" : undefined, "data-label": c.label }, c.cell(row)))
        )
      )
    render(
      wrap,
      h(
        "table",
        { class: ["stack", options.className ?? ""].join(" ").trim() },
        h("thead", {}, head),
        h("tbody", {}, body)
      )
    )
  }
  draw()
  return wrap
}
