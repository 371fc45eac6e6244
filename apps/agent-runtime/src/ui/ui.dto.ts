import { IsString, MaxLength } from 'class-validator';

/** `POST /ui/{agent}`: which of the agent's components to load (`message.name`). */
export class ComponentRequestDto {
  @IsString()
  @MaxLength(1024)
  name!: string;
}
