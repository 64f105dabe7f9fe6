// The public door of src/admin/ (docs/ARCHITECTURE.md, "Public doors"): the table plan and its
// application, and the Java admin tool behind the table-admin port.
export { applyTables, type AppliedTable } from './apply-tables.ts';
export { JavaTableAdmin } from './java-admin.ts';
export type { TableAdminPort } from './table-admin-port.ts';
export { planTables } from './table-plan.ts';
