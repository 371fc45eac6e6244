import { PROTOCOL_CHANNEL } from '../protocol-events/protocol-event.js';
import {
  ArrayNotEmpty,
  IsArray,
  IsInt,
  IsOptional,
  IsString,
  Matches,
  Max,
  Min,
} from 'class-validator';

/** The body of `POST /threads/{id}/stream/events` (the protocol's `EventStreamRequest`). */
export class EventStreamRequestDto {
  @IsArray()
  @ArrayNotEmpty()
  @IsString({ each: true })
  @Matches(PROTOCOL_CHANNEL, {
    each: true,
    message: "each channel must be one of the protocol's channels",
  })
  channels!: string[];

  @IsOptional()
  @IsArray()
  @IsArray({ each: true })
  namespaces?: string[][];

  @IsOptional()
  @IsInt()
  @Min(0)
  depth?: number;

  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(Number.MAX_SAFE_INTEGER)
  since?: number;
}
