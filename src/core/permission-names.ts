/** What people call each permission key (the names the `permissions` table holds, for pages and messages). */
export const PERMISSION_NAMES: Readonly<Record<string, string>> = {
  superuser: 'Superuser',
  accounts_payable: 'Accounts Payable',
  nav_request: 'Request',
  nav_approval: 'Approval',
  nav_purchase: 'Purchase',
  nav_receive: 'Receive',
  nav_manage: 'Manage',
  nav_setting: 'Settings',
  nav_report: 'Report',
}

export const permissionName = (key: string): string => PERMISSION_NAMES[key] ?? key
