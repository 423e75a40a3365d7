// The resolve hook module-loads.mjs registers: one `resolved <url>` line on stderr per ES module.
export async function resolve(specifier, context, next) {
  const result = await next(specifier, context);
  process.stderr.write(`resolved ${result.url}\n`);
  return result;
}
