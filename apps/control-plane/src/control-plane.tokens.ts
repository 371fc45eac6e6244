export const PLATFORM_RESOURCES = Symbol('PLATFORM_RESOURCES');
export const PG_POOL = Symbol('PG_POOL');
export const CONTROL_PLANE_CONFIG = Symbol('CONTROL_PLANE_CONFIG');
