/** Case-insensitive substring of the name, ignoring leading and trailing spaces of the search text. */
export function filterByName<T extends { name: string }>(items: readonly T[], search: string): T[] {
  const needle = search.trim().toLowerCase();
  if (!needle) return [...items];
  return items.filter((t) => t.name.toLowerCase().includes(needle));
}
