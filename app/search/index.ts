/** The search semantics of search.md, shared by the service and the offline index. */
export * from './fold.js';
export * from './query.js';
export * from './match.js';
export * from './order.js';
export * from './listing.js';
export * from './page-token.js';
export * from './select.js';
export * from './requests.js';
export * from './naive.js';
