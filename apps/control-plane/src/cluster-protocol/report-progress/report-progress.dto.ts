import { IsIn, IsOptional, IsString, IsUUID, MaxLength, ValidateIf } from 'class-validator';

import {
  REPORT_MESSAGE_MAX,
  REPORTED_STATUSES,
  type ReportedStatus,
} from '#libs/listener-protocol';

/** `POST /v2/listeners/{listener_id}/reports`: how a deployment's revision, or its tear-down, went. */
export class ReportProgressDto {
  @IsUUID()
  deployment_id!: string;

  /** The revision reported on; not for `TORN_DOWN`. */
  @ValidateIf((report: ReportProgressDto) => report.status !== 'TORN_DOWN')
  @IsString()
  @MaxLength(64)
  revision_id?: string;

  @IsIn(REPORTED_STATUSES)
  status!: ReportedStatus;

  /** Why, for `DEPLOY_FAILED`: shown as the revision's status message. */
  @IsOptional()
  @IsString()
  @MaxLength(REPORT_MESSAGE_MAX)
  message?: string;
}
