// The conformance suite 0.1.16 imports fs.globSync (Node 22) for its
// tier-check command only; on older Node the import alone fails. This hook
// gives the suite's modules an fs with a globSync that says so.
import { register } from 'node:module';

if (Number(process.versions.node.split('.')[0]) < 22) {
  const shim = "export * from 'node:fs'; export { default } from 'node:fs'; " +
    "export function globSync() { throw new Error('globSync needs Node 22'); }";
  register('data:text/javascript,' + encodeURIComponent(`
export async function resolve(spec, ctx, next) {
  if (spec === 'fs' && ctx.parentURL && ctx.parentURL.includes('/@modelcontextprotocol/conformance/')) {
    return { url: 'data:text/javascript,' + encodeURIComponent(${JSON.stringify(shim)}), shortCircuit: true };
  }
  return next(spec, ctx);
}`));
}
