import {
  Body,
  Controller,
  Get,
  Header,
  HttpCode,
  Inject,
  NotFoundException,
  Param,
  Post,
  Req,
  Res,
  ServiceUnavailableException,
} from '@nestjs/common';
import { ApiResponse } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ComponentRequestDto } from './ui.dto.js';
import type { UiFile } from './ui-bundler.js';
import { UiBundles } from './ui-bundles.js';
import { componentMarkup, contentTypeOf } from './ui-markup.js';

/** Generative UI: what `LoadExternalComponent` of `@langchain/langgraph-sdk/react-ui` loads. */
@Controller('ui')
export class UiController {
  constructor(@Inject(UiBundles) private readonly bundles: UiBundles) {}

  @ApiResponse({
    status: 200,
    description: "The tags that load the agent's styles and script and render the component",
    content: { 'text/html': { schema: { type: 'string' } } },
  })
  @Post(':agent')
  @HttpCode(200)
  async component(
    @Param('agent') agent: string,
    @Body() body: ComponentRequestDto,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<string> {
    const files = await this.filesOf(agent);
    void reply.type('text/html; charset=utf-8');
    return componentMarkup({
      agent,
      name: body.name,
      host: request.host,
      files: files.map((file) => file.name),
    });
  }

  @ApiResponse({
    status: 200,
    description: "A file of the agent's bundle (served without the API key)",
    content: { '*/*': { schema: { type: 'string', format: 'binary' } } },
  })
  @Get(':agent/:file')
  @Header('cache-control', 'no-cache')
  async file(
    @Param('agent') agent: string,
    @Param('file') name: string,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<Buffer> {
    const file = (await this.filesOf(agent)).find((candidate) => candidate.name === name);
    if (!file) throw new NotFoundException(`The UI of agent "${agent}" has no file "${name}"`);
    void reply.type(contentTypeOf(file.name));
    return Buffer.from(file.contents);
  }

  private async filesOf(agent: string): Promise<readonly UiFile[]> {
    const bundle = await this.bundles.find(agent);
    if (!bundle) {
      throw new NotFoundException(`No UI for agent "${agent}": langgraph.json has no ui.${agent}`);
    }
    if (!bundle.files) {
      throw new ServiceUnavailableException(
        `The UI of agent "${agent}" is not served: ${bundle.problem}`,
      );
    }
    return bundle.files;
  }
}
