/** The window/engine contract: schemas, methods, events and their wire envelope. */
export * from '../util/schema.js';
export * from './shapes.js';
export * from './organize-shapes.js';
export * from './methods.js';
export * from './envelope.js';
