/** A rate as a percentage with one decimal, or `n/a` when nothing was checked. @internal */
export function percent(value: number | undefined): string {
  return value === undefined ? 'n/a' : `${(value * 100).toFixed(1)}%`;
}

/** Dollars with two decimals (four under a dollar). @internal */
export function dollars(value: number): string {
  return `$${value < 1 ? value.toFixed(4) : value.toFixed(2)}`;
}

/** Millions of tokens with two decimals. @internal */
export function millions(value: number): string {
  return `${(value / 1_000_000).toFixed(2)} M`;
}

/** The label of a row: the strategy, with its summariser when it has one. @internal */
export function rowLabel(row: { readonly strategyLabel: string; readonly summariserId: string }): string {
  return row.summariserId === 'none'
    ? row.strategyLabel
    : `${row.strategyLabel} + ${row.summariserId.replace(/^scripted:/, '')}`;
}
