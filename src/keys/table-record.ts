// The table attributes in which `tsingest tables apply` records this service's key layout on each
// table (admin/table-plan.ts writes them; the doctor reads them back, doctor/layout.ts).
export const TABLE_META = {
  buckets: 'tsingest.salt.buckets',
  keyFormat: 'tsingest.key.format',
  role: 'tsingest.table.role',
} as const;
