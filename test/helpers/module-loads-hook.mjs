// The resolve hook module-loads.mjs registers: one `resolved <url>` line on stderr per ES module.
// biome-ignore lint/complexity/useMaxParams: the signature Node's module hooks require
export async function resolve(specifier, context, next) {
  const result = await next(specifier, context);
  process.stderr.write(`resolved ${result.url}\n`);
  return result;
}
