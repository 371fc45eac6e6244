export * from './sealed-box.js';
