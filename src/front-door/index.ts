// The public door of src/front-door/ (docs/ARCHITECTURE.md, "Public doors"): how a credential is
// hashed (bench:front-door configures its callers with it).
export { hashToken } from './credentials.ts';
