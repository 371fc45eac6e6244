/** Where a deployment's runtime answers on this machine, or why it does not. */
export type RuntimeAddress = { readonly port: number } | { readonly unreachable: string };
