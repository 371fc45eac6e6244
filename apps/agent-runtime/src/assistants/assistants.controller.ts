import { Returns, ReturnsNothing, listOf } from '#libs/http';
import { AuthEvent } from '../auth/auth-event.decorator.js';
import {
  Body,
  Controller,
  Delete,
  Get,
  HttpCode,
  Inject,
  Param,
  Patch,
  Post,
  Query,
} from '@nestjs/common';
import { uuidv7 } from '#libs/event-store';
import {
  AssistantGraphs,
  type GraphDrawing,
  type GraphSchema,
  type Subgraphs,
} from './assistant-graphs.service.js';
import type { Assistant, AssistantVersion } from './assistant.resource.js';
import {
  AssistantGraphQueryDto,
  AssistantSubgraphsQueryDto,
  ListVersionsDto,
  SearchAssistantsDto,
} from './assistants.dto.js';
import { CreateAssistantDto } from './create-assistant/create-assistant.dto.js';
import { DeleteAssistantQueryDto } from './delete-assistant/delete-assistant.dto.js';
import { SetLatestVersionDto } from './set-latest-version/set-latest-version.dto.js';
import { UpdateAssistantDto } from './update-assistant/update-assistant.dto.js';
import { CommandBus } from '@nestjs/cqrs';
import { AssistantsService } from './assistants.service.js';
import { CreateAssistant } from './create-assistant/create-assistant.command.js';
import { DeleteAssistant } from './delete-assistant/delete-assistant.command.js';
import { SetLatestVersion } from './set-latest-version/set-latest-version.command.js';
import { UpdateAssistant } from './update-assistant/update-assistant.command.js';
import { IdPipe } from '../common/id.pipe.js';
import type { JsonObject } from '#libs/domain';
import { RequestActor } from '../auth/request-actor.js';

const now = (): string => new Date().toISOString();

@Controller('assistants')
export class AssistantsController {
  constructor(
    @Inject(AssistantsService) private readonly assistants: AssistantsService,
    @Inject(AssistantGraphs) private readonly graphs: AssistantGraphs,
    @Inject(CommandBus) private readonly commands: CommandBus,
  ) {}

  @Returns('Assistant')
  @AuthEvent('assistants:create')
  @Post()
  @HttpCode(200)
  create(@Body() body: CreateAssistantDto, @RequestActor() actor: JsonObject): Promise<Assistant> {
    const { graph_id, assistant_id, if_exists, ...fields } = body;
    const id = assistant_id ?? uuidv7();
    return this.commands.execute(
      new CreateAssistant(id, graph_id, fields, if_exists ?? 'raise', now(), actor),
    );
  }

  @Returns(listOf('Assistant'))
  @AuthEvent('assistants:search', 'search')
  @Post('search')
  @HttpCode(200)
  search(@Body() body: SearchAssistantsDto): Promise<Partial<Assistant>[]> {
    return this.assistants.search(body);
  }

  @Returns('Count')
  @AuthEvent('assistants:search', 'count')
  @Post('count')
  @HttpCode(200)
  count(@Body() body: SearchAssistantsDto): Promise<number> {
    return this.assistants.count(body);
  }

  @Returns('Assistant')
  @AuthEvent('assistants:read')
  @Get(':assistantId')
  get(@Param('assistantId', IdPipe) assistantId: string): Promise<Assistant> {
    return this.assistants.get(assistantId);
  }

  @Returns('GraphDrawing')
  @AuthEvent('assistants:read')
  @Get(':assistantId/graph')
  graph(
    @Param('assistantId') assistantId: string,
    @Query() query: AssistantGraphQueryDto,
  ): Promise<GraphDrawing> {
    return this.graphs.drawing(assistantId, query.xray);
  }

  @Returns('GraphSchemas')
  @AuthEvent('assistants:read')
  @Get(':assistantId/schemas')
  schemas(@Param('assistantId') assistantId: string): Promise<GraphSchema> {
    return this.graphs.schemas(assistantId);
  }

  @Returns('Subgraphs')
  @AuthEvent('assistants:read')
  @Get(':assistantId/subgraphs')
  subgraphs(
    @Param('assistantId') assistantId: string,
    @Query() query: AssistantSubgraphsQueryDto,
  ): Promise<Subgraphs> {
    return this.graphs.subgraphs(assistantId, undefined, query.recurse === 'true');
  }

  @Returns('Subgraphs')
  @AuthEvent('assistants:read')
  @Get(':assistantId/subgraphs/:namespace')
  subgraphsUnder(
    @Param('assistantId') assistantId: string,
    @Param('namespace') namespace: string,
    @Query() query: AssistantSubgraphsQueryDto,
  ): Promise<Subgraphs> {
    return this.graphs.subgraphs(assistantId, namespace, query.recurse === 'true');
  }

  @Returns('Assistant')
  @AuthEvent('assistants:update')
  @Patch(':assistantId')
  update(
    @Param('assistantId', IdPipe) assistantId: string,
    @Body() body: UpdateAssistantDto,
    @RequestActor() actor: JsonObject,
  ): Promise<Assistant> {
    return this.commands.execute(new UpdateAssistant(assistantId, body, now(), actor));
  }

  @ReturnsNothing()
  @AuthEvent('assistants:delete')
  @Delete(':assistantId')
  @HttpCode(204)
  async delete(
    @Param('assistantId', IdPipe) assistantId: string,
    @Query() query: DeleteAssistantQueryDto,
  ): Promise<void> {
    await this.commands.execute(
      new DeleteAssistant(assistantId, now(), query.delete_threads === 'true'),
    );
  }

  @Returns('Assistant')
  @AuthEvent('assistants:update')
  @Post(':assistantId/latest')
  @HttpCode(200)
  setLatest(
    @Param('assistantId', IdPipe) assistantId: string,
    @Body() body: SetLatestVersionDto,
    @RequestActor() actor: JsonObject,
  ): Promise<Assistant> {
    return this.commands.execute(new SetLatestVersion(assistantId, body.version, now(), actor));
  }

  @Returns(listOf('AssistantVersion'))
  @AuthEvent('assistants:read')
  @Post(':assistantId/versions')
  @HttpCode(200)
  versions(
    @Param('assistantId', IdPipe) assistantId: string,
    @Body() body: ListVersionsDto,
  ): Promise<AssistantVersion[]> {
    return this.assistants.versions(assistantId, body);
  }
}
